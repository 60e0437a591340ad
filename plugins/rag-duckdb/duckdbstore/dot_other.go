//go:build !amd64

package duckdbstore

// dot is the inner product of two vectors of equal length.
func dot(a, b []float32) float32 { return dotGo(a, b) }
