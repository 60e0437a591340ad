package rag

import (
	"reflect"
	"testing"
)

func TestIndexFileIndexesEveryChunkUnderItsID(t *testing.T) {
	f := &File{Files: map[int]FileEntry{
		4: {Path: "/a", Documents: []Document{{PageContent: "red apples"}, {PageContent: "green pears"}}},
		7: {Path: "/b", Documents: []Document{{PageContent: "red cars"}}},
	}}
	x, err := IndexFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if ids := HitIDs(x.Search("red", 5)); !reflect.DeepEqual(ids, []string{"4-0", "7-0"}) {
		t.Errorf("red: %v", ids)
	}
	if ids := HitIDs(x.Search("pears", 5)); !reflect.DeepEqual(ids, []string{"4-1"}) {
		t.Errorf("pears: %v", ids)
	}
	x.RemoveFile("4")
	if ids := HitIDs(x.Search("red", 5)); !reflect.DeepEqual(ids, []string{"7-0"}) {
		t.Errorf("after removing file 4: %v", ids)
	}
}
