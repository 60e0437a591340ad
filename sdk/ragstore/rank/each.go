package rank

// EachToken calls fn with each token of text, as Tokenize would return
// them, without a string for each: fn must not keep the slice. A store
// that counts terms while indexing looks them up with it (a map lookup of
// string(t) does not allocate).
func EachToken(text string, fn func(t []byte)) {
	tokens(text, fn)
}
