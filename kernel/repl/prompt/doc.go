// Package prompt owns the REPL's prompt templates: the default left and
// right prompts, the small template language of the left_prompt and
// right_prompt settings ({name}, {?name TEXT}, {!name TEXT},
// {color.X}), and Width, the printed width of a rendered prompt, which
// the REPL needs to right-align the right prompt.
//
// A template is parsed once, when the configuration is loaded, and
// rendered every time the prompt is drawn, so rendering does no parsing
// and allocates once. Parsing never fails: anything that is not a
// well-formed form (an unbalanced brace, an unknown colour, a stray
// "{?") is kept as literal text, so a broken setting still shows a
// prompt the user can recognise and fix.
//
// The variables the REPL passes are model (the full client:model id),
// client_name, model_name, max_input_tokens, temperature, top_p, dry_run,
// stream, save, wrap, role, session, dirty ("true" when the session has
// unsaved changes), agent, rag, reasoning_effort, consume_tokens,
// consume_percent, user_messages_len and cost (what the session, or
// without one the run, has spent: "$0.0123", "unknown" when the price is
// not known); an unset or empty one renders as
// "". A {name} that is neither one of these nor passed by the caller is
// shown as written, so a typo is visible in the prompt.
//
// It does not read the configuration or the environment, or decide
// whether colour is on: the caller passes that to Render (off when
// NO_COLOR is set or the output is not a terminal). It draws nothing and
// knows nothing about line editing.
package prompt
