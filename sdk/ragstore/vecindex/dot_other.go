//go:build !amd64

package vecindex

// Dot is the inner product of two vectors of equal length.
func Dot(a, b []float32) float32 { return dotGo(a, b) }
