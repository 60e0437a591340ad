//go:build !unix

package main

// privateFiles does nothing where there is no umask.
func privateFiles() {}
