package plugins

import "github.com/hashicorp/go-hclog"

// quietLogger is the logger handed to go-plugin. go-plugin reports every
// clean plugin exit at info level, which would put a line in the log on
// every run; this moves that one message to debug. Crashes are still
// reported by go-plugin at error level, and by the host.
type quietLogger struct{ hclog.Logger }

const cleanExitMessage = "plugin process exited"

func (q quietLogger) Info(msg string, args ...any) {
	if msg == cleanExitMessage {
		q.Logger.Debug(msg, args...)
		return
	}
	q.Logger.Info(msg, args...)
}

func (q quietLogger) Log(level hclog.Level, msg string, args ...any) {
	if level == hclog.Info && msg == cleanExitMessage {
		level = hclog.Debug
	}
	q.Logger.Log(level, msg, args...)
}

func (q quietLogger) Named(name string) hclog.Logger { return quietLogger{q.Logger.Named(name)} }
func (q quietLogger) ResetNamed(name string) hclog.Logger {
	return quietLogger{q.Logger.ResetNamed(name)}
}
func (q quietLogger) With(args ...any) hclog.Logger { return quietLogger{q.Logger.With(args...)} }
