package macro

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchDirs writes 100 macros into each directory, 20 names shared, with
// variables and a description like real files.
func benchDirs(b *testing.B) Dirs {
	root := b.TempDir()
	d := Dirs{Global: filepath.Join(root, "global"), Workspace: filepath.Join(root, "ws")}
	const body = `description: Review the working tree against a branch
isolated: false
variables:
  - name: base
    default: main
  - name: focus
    rest: true
    default: ""
steps:
  - ".file ` + "`git diff {{base}}`" + ` -- Review this diff against {{base}}. {{focus}}"
  - .info
`
	g, w := map[string]string{}, map[string]string{}
	for i := range 100 {
		g[fmt.Sprintf("macro-%03d.yaml", i)] = body
		w[fmt.Sprintf("macro-%03d.yaml", i+80)] = body // 80..179: 20 shared
	}
	write(b, d.Global, g)
	write(b, d.Workspace, w)
	return d
}

var benchPolicy = Policy{
	{Kind: KindSession, Where: "work"},
	{Kind: KindRole, Where: "coder", Set: true, List: []string{"macro-001", "macro-090", "macro-150", "gone"}},
	{Kind: KindGlobal},
}

func benchBuiltin(name string) bool { return name == "help" || name == "info" }

// BenchmarkResolve200 is one resolution as every Tab does it, warm: read
// both directories, stat 200 files, resolve.
func BenchmarkResolve200(b *testing.B) {
	d := benchDirs(b)
	c := NewCatalog()
	c.Discover(d)
	b.ReportAllocs()
	for b.Loop() {
		list, _ := c.Discover(d)
		if len(Resolve(list, benchPolicy, benchBuiltin)) != 201 {
			b.Fatal("wrong row count")
		}
	}
}

// BenchmarkResolve200Cold parses all 200 files every time.
func BenchmarkResolve200Cold(b *testing.B) {
	d := benchDirs(b)
	b.ReportAllocs()
	for b.Loop() {
		list, _ := NewCatalog().Discover(d)
		if len(Resolve(list, benchPolicy, benchBuiltin)) != 201 {
			b.Fatal("wrong row count")
		}
	}
}
