//go:build !amd64

package vecindex

// Dot is the inner product of two vectors of equal length.
func Dot(a, b []float32) float32 { return dotGo(a, b) }

// DotInt8 is the inner product of two int8 vectors of equal length.
func DotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }
