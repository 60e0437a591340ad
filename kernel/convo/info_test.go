package convo

import (
	"strings"
	"testing"
)

// One long value is cut, so it does not widen every other row; paths, in
// the last column, stay whole.
func TestWriteInfoCutsLongSettingsAndAlignsSources(t *testing.T) {
	long := strings.Repeat("x", 300)
	path := "/" + strings.Repeat("p", 100)
	var b strings.Builder
	if err := WriteInfo(&b, []InfoRow{
		{"stream", "true", "default"},
		{"left_prompt", long, "file config.yaml:3"},
		{"config_dir", path, ""},
	}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"stream       true" + strings.Repeat(" ", maxInfoValue-4) + "  default",
		"left_prompt  " + strings.Repeat("x", maxInfoValue-1) + "…  file config.yaml:3",
		"config_dir   " + path,
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], want[i])
		}
	}
}
