package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// stderr receives the log of main and of serve --log-format; tests point it
// at a buffer of theirs.
var stderr io.Writer = os.Stderr

// logFormatEnv is the environment twin of serve's --log-format; every
// command's log follows it.
const logFormatEnv = "STOREADMIN_LOG_FORMAT"

// newLogger writes records at info and above to w, as text (key=value,
// for people) or JSON (one object a line, for log collectors).
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("the log format must be text or json, not %q", format)
}
