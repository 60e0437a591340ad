//go:build unix

package main

import "syscall"

// privateFiles makes every file and folder this process creates private
// (0600, 0700): DuckDB creates its database, WAL and spill files itself,
// and a RAG's store holds the user's documents.
func privateFiles() { syscall.Umask(0o077) }
