package plugins

// fileID is what identifies a file's content without reading it: a
// change of content changes the size, the modification time or the
// change time, and a replaced file has a new inode. A user can set the
// modification time back, never the change time.
type fileID struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
}
