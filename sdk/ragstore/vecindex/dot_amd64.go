package vecindex

import "golang.org/x/sys/cpu"

// useAVX2 is whether this processor has the instructions of dotAVX2.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

// Dot is the inner product of two vectors of equal length.
func Dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGo(a, b)
}

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

// DotInt8 is the inner product of two int8 vectors of equal length.
func DotInt8(a, b []int8) int32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotInt8AVX2(&a[0], &b[0], len(a))
	}
	return dotInt8Go(a, b)
}
