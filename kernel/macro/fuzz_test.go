package macro

import "testing"

// Any macro file either parses or is refused with an error, never a
// panic, and the usage line of one that parses can always be drawn.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"description: d\nisolated: false\nvariables:\n  - name: a\n  - name: b\n    default: x\n  - name: rest\n    rest: true\nsteps:\n  - .role {{a}}\n  - '{{b}} {{rest}}'\n",
		"steps: []\n",
		"variables: 5\n",
		"steps:\n  - !cmd\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("m", data)
		if err != nil || m == nil {
			return
		}
		vals := map[string]string{}
		for _, v := range m.Variables {
			vals[v.Name] = "v"
		}
		for _, s := range m.Steps {
			_ = Substitute(s, vals)
		}
	})
}
