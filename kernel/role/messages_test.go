package role

import (
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

func sys(text string) provider.Message  { return provider.TextMessage(provider.RoleSystem, text) }
func user(text string) provider.Message { return provider.TextMessage(provider.RoleUser, text) }
func asst(text string) provider.Message { return provider.TextMessage(provider.RoleAssistant, text) }

// fixedVars gives every system variable a recognisable value.
func fixedVars(name string) string { return "<" + name + ">" }

func TestMessagesForAnInput(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		want   []provider.Message
	}{
		{"plain prompt is the system message", "Be brief.", []provider.Message{sys("Be brief."), user("IN")}},
		{"empty prompt sends only the input", "", []provider.Message{user("IN")}},
		{"__INPUT__ takes the input in one user message", "Translate: __INPUT__ (to French)",
			[]provider.Message{user("Translate: IN (to French)")}},
		{"every __INPUT__ is replaced", "__INPUT__ and again __INPUT__", []provider.Message{user("IN and again IN")}},
		{"few-shot pairs after a system text",
			"Answer in one word.\n### INPUT:\nsky colour?\n### OUTPUT:\nblue\n### INPUT:\ngrass?\n### OUTPUT:\ngreen\n",
			[]provider.Message{sys("Answer in one word."), user("sky colour?"), asst("blue"), user("grass?"), asst("green"), user("IN")}},
		{"few-shot without a system text",
			"### INPUT:\n2+2\n### OUTPUT:\n4",
			[]provider.Message{user("2+2"), asst("4"), user("IN")}},
		{"an input marker without output is all system prompt",
			"Rules.\n### INPUT:\nx\n### OUTPUT:\ny\n### INPUT:\nz",
			[]provider.Message{sys("Rules.\n### INPUT:\nx\n### OUTPUT:\ny\n### INPUT:\nz"), user("IN")}},
		{"an output marker before any input is system text",
			"Use ### OUTPUT: headings.", []provider.Message{sys("Use ### OUTPUT: headings."), user("IN")}},
		{"system variables are expanded in the system message", "OS {{__os__}} in {{__cwd__}}",
			[]provider.Message{sys("OS <__os__> in <__cwd__>"), user("IN")}},
		{"system variables are expanded with __INPUT__", "On {{__shell__}}: __INPUT__",
			[]provider.Message{user("On <__shell__>: IN")}},
		{"system variables are expanded in examples", "### INPUT:\n{{__arch__}}\n### OUTPUT:\nok",
			[]provider.Message{user("<__arch__>"), asst("ok"), user("IN")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Role{Name: "x", Prompt: tt.prompt}
			got := r.Build([]provider.Part{{Text: "IN"}}, fixedVars)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestMessagesDoNotExpandVariablesInTheInput(t *testing.T) {
	r := &Role{Prompt: "Say: __INPUT__"}
	got := r.Build([]provider.Part{{Text: "{{__os__}}"}}, fixedVars)
	if want := []provider.Message{user("Say: {{__os__}}")}; !reflect.DeepEqual(got, want) {
		t.Errorf("messages = %#v", got)
	}
	r = &Role{Prompt: "System."}
	got = r.Build([]provider.Part{{Text: "{{__os__}}"}}, fixedVars)
	if want := []provider.Message{sys("System."), user("{{__os__}}")}; !reflect.DeepEqual(got, want) {
		t.Errorf("messages = %#v", got)
	}
}

func TestMessagesKeepImagesOfTheInput(t *testing.T) {
	img := provider.Part{ImageURL: "data:image/png;base64,AAAA"}
	tests := []struct {
		name   string
		prompt string
		parts  []provider.Part
		want   []provider.Message
	}{
		{"system prompt", "Describe.", []provider.Part{img, {Text: "what is it"}},
			[]provider.Message{sys("Describe."), {Role: provider.RoleUser, Parts: []provider.Part{img, {Text: "what is it"}}}}},
		{"__INPUT__ goes into the text part", "Q: __INPUT__", []provider.Part{img, {Text: "what is it"}},
			[]provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{img, {Text: "Q: what is it"}}}}},
		{"__INPUT__ with only an image adds the prompt as text", "Q: __INPUT__!", []provider.Part{img},
			[]provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "Q: !"}, img}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Role{Prompt: tt.prompt}).Build(tt.parts, fixedVars)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestMessagesUsesTheRealSystemVariables(t *testing.T) {
	r := &Role{Prompt: "family {{__os_family__}}"}
	got := r.Messages("hi")
	want := sys("family " + SystemVars()("__os_family__"))
	if len(got) != 2 || !reflect.DeepEqual(got[0], want) || got[1].Text() != "hi" {
		t.Errorf("messages = %#v", got)
	}
}

func TestSplitExamples(t *testing.T) {
	system, ex := SplitExamples("  Sys  \n### INPUT:\n a \n### OUTPUT:\n b \n")
	if system != "Sys" || !reflect.DeepEqual(ex, []Example{{"a", "b"}}) {
		t.Errorf("SplitExamples = %q, %#v", system, ex)
	}
	system, ex = SplitExamples("no examples")
	if system != "no examples" || ex != nil {
		t.Errorf("SplitExamples = %q, %#v", system, ex)
	}
}

func TestEmbedded(t *testing.T) {
	if !(&Role{Prompt: "x __INPUT__"}).Embedded() || (&Role{Prompt: "x"}).Embedded() {
		t.Error("Embedded does not follow __INPUT__")
	}
}
