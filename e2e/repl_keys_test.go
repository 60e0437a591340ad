package e2e

import "testing"

// Tab completes a command from letters that are not its start: the word
// typed is replaced by the one command it fuzzily matches.
func TestREPLTabCompletesFuzzily(t *testing.T) {
	_, e := newREPLEnv(t, reply("unused"))
	p := e.startREPL()
	p.send(".ssn")
	p.expect(replPrompt+".ssn", replTimeout)
	p.send("\t")
	p.expect(".session ", replTimeout)
	p.send("\r")
	p.expect(sessionPrompt("temp"), replTimeout)
}
