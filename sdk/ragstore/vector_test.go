package ragstore

import (
	"reflect"
	"testing"
)

func TestVectorEncodingRoundTrips(t *testing.T) {
	v := []float32{0, -1.5, 3.25e-7, 1e30}
	got, err := DecodeVector(EncodeVector(v))
	if err != nil || !reflect.DeepEqual(got, v) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := DecodeVector("AAA="); err == nil {
		t.Fatal("a truncated vector decoded")
	}
}
