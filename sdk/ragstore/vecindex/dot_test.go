package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotMatchesAPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		a, b := make([]float32, n), make([]float32, n+3)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		for name, f := range map[string]func(a, b []float32) float32{"Dot": Dot, "dotGo": dotGo} {
			if got := f(a, b); math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
				t.Errorf("%s of length %d = %v, want %v", name, n, got, want)
			}
		}
	}
}
