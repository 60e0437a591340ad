// Package render owns how a model's reply looks on a terminal: markdown
// that arrives in small deltas is shown at once and rewritten, line by
// line, as styled and wrapped text (headings, emphasis, lists, task lists,
// block quotes, rules, links, aligned tables), with code blocks coloured by
// its own small highlighter.
//
// It writes only to the io.Writer it is given. It does not decide whether
// the output is a terminal, read the configuration or the environment, or
// know where the text comes from: the caller passes Options. Nothing is
// built when the package is initialised (every kernel start pays for that);
// palettes and language tables are built on first use.
package render
