package ragstore

// SplitBatches cuts chunks into consecutive batches of at most maxBytes on
// the wire each (estimated: text, ids, metadata and 4 bytes per vector
// component), so that each fits one gRPC message. A chunk larger than
// maxBytes on its own gets a batch of its own. The batches share chunks'
// backing array.
func SplitBatches(chunks []Chunk, maxBytes int) [][]Chunk {
	var out [][]Chunk
	start, size := 0, 0
	for i := range chunks {
		n := WireSize(&chunks[i])
		if i > start && size+n > maxBytes {
			out = append(out, chunks[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(chunks) {
		out = append(out, chunks[start:])
	}
	return out
}

// chunkOverhead generously covers a chunk's field tags and lengths.
const chunkOverhead = 32

// WireSize estimates the bytes a chunk takes in an Upsert message, a
// little over the exact protobuf size.
func WireSize(c *Chunk) int {
	n := chunkOverhead + len(c.ID) + len(c.FileID) + len(c.Text) + 4*len(c.Vector)
	for k, v := range c.Metadata {
		n += len(k) + len(v) + 8
	}
	return n
}
