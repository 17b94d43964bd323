package tensorpool

import (
	"log/slog"
	"net/http"
	"time"
)

// logger writes the client's log lines (WithLogger): the operation, the
// method and URL, the key scrubbed, never a header or a body.
type logger struct {
	l      *slog.Logger // nil: no log
	redact func(string) string
}

// attempt logs an attempt sent at start at debug level (its status or
// error, and time) and, if reason says why it is retried, the retry at info
// level (why, and after how long).
func (l logger) attempt(req *http.Request, attempt int, resp *http.Response, err error, start time.Time, reason string, delay time.Duration) {
	if l.l == nil {
		return
	}
	if l.l.Enabled(req.Context(), slog.LevelDebug) {
		var outcome slog.Attr
		if err != nil {
			outcome = slog.String("error", l.redact(err.Error()))
		} else {
			outcome = slog.Int("status", resp.StatusCode)
		}
		l.log(req, slog.LevelDebug, "tensorpool: request", attempt, slog.Duration("duration", time.Since(start)), outcome)
	}
	if reason != "" {
		l.log(req, slog.LevelInfo, "tensorpool: retrying", attempt, slog.String("reason", reason), slog.Duration("delay", delay))
	}
}

// log writes one line: the operation (its template, as "POST
// /storage/attach"), the method, URL and attempt, then attrs.
func (l logger) log(req *http.Request, level slog.Level, msg string, attempt int, attrs ...slog.Attr) {
	head := []slog.Attr{slog.String("method", req.Method), slog.String("url", l.redact(urlString(req.URL))), slog.Int("attempt", attempt)}
	if op, ok := OperationFromContext(req.Context()); ok {
		head = append([]slog.Attr{slog.String("operation", op.String())}, head...)
	}
	l.l.LogAttrs(req.Context(), level, msg, append(head, attrs...)...)
}
