//go:build !unix

package duckdbstore

import (
	"io"
	"os"
)

// mapFile reads the first size bytes of f where there is no mmap here.
func mapFile(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

func unmapFile([]byte) error { return nil }
