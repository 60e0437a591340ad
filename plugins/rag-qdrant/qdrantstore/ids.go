package qdrantstore

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/qdrant/go-client/qdrant"
)

// Point ids. Qdrant's are unsigned integers or UUIDs; the kernel's are
// strings. An attached collection's ids travel as their canonical text: an
// integer in decimal, a UUID as Qdrant wrote it. The two cannot be mistaken
// for each other (a UUID never parses as an integer), so the mapping needs
// no table that a restarted plugin process would lose, and the id sent back
// to Qdrant is exactly the one it issued: the integer 1 is never asked for
// as the string "1".

// pointIDString is the kernel's id for a point of an attached collection,
// or "" for an id of neither kind.
func pointIDString(id *qdrant.PointId) string {
	switch v := id.GetPointIdOptions().(type) {
	case *qdrant.PointId_Num:
		return strconv.FormatUint(v.Num, 10)
	case *qdrant.PointId_Uuid:
		return v.Uuid
	}
	return ""
}

// parsePointID turns a kernel id back into the point id Qdrant issued; ok
// is false for an id that no point of an attached collection can have.
func parsePointID(s string) (*qdrant.PointId, bool) {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return qdrant.NewIDNum(n), true
	}
	if isUUID(s) {
		return qdrant.NewIDUUID(s), true
	}
	return nil, false
}

// isUUID accepts the forms Qdrant accepts: 32 hex digits, hyphenated 8-4-4-4-12
// or not, optionally braced or with a urn:uuid: prefix.
func isUUID(s string) bool {
	s = undecorated(s)
	switch len(s) {
	case 36:
		for _, i := range []int{8, 13, 18, 23} {
			if s[i] != '-' {
				return false
			}
		}
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	case 32:
	default:
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// chunkNamespace is the UUID namespace of owned stores' point ids (a
// random UUID fixed for good: changing it orphans every owned collection's
// points).
var chunkNamespace = [16]byte{0x6b, 0x1e, 0x4c, 0x2f, 0x93, 0x0a, 0x4d, 0x57, 0xa8, 0x61, 0x3e, 0x0c, 0x7d, 0x25, 0xb9, 0x14}

// chunkPointID is the point id of a chunk in an owned collection: the
// name-based (version 5) UUID of the chunk id, so that upserting a chunk
// again replaces its point and FetchContent needs no lookup.
func chunkPointID(chunkID string) *qdrant.PointId {
	return qdrant.NewIDUUID(uuid5(chunkNamespace, chunkID))
}

// uuid5 is the name-based, SHA-1 UUID of name in namespace ns (RFC 9562),
// hyphenated in lower case.
func uuid5(ns [16]byte, name string) string {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// pointKey identifies a point in a response map, whatever its kind.
func pointKey(id *qdrant.PointId) string {
	switch v := id.GetPointIdOptions().(type) {
	case *qdrant.PointId_Num:
		return "n:" + strconv.FormatUint(v.Num, 10)
	case *qdrant.PointId_Uuid:
		return "u:" + canonicalUUID(v.Uuid)
	}
	return ""
}

// canonicalUUID lower-cases a UUID and strips its decorations and hyphens,
// so that the id asked for and the id Qdrant answers with (always
// hyphenated lower case) match.
func canonicalUUID(s string) string { return strings.ReplaceAll(undecorated(s), "-", "") }

// undecorated lower-cases a UUID and strips a urn:uuid: prefix and braces.
func undecorated(s string) string {
	s = strings.TrimPrefix(strings.ToLower(s), "urn:uuid:")
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	return s
}
