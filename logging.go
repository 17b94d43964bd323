package tensorpool

import (
	"log/slog"
	"net/http"
	"time"
)

// now is the start of an attempt, for logAttempt: the clock is read only
// for a logger.
func (d *doer) now() time.Time {
	if d.logger == nil {
		return time.Time{}
	}
	return time.Now()
}

// logAttempt logs one attempt at debug level: never a header or a body, and
// the key scrubbed from the URL and the error.
func (d *doer) logAttempt(req *http.Request, attempt int, resp *http.Response, err error, start time.Time) {
	if d.logger == nil || !d.logger.Enabled(req.Context(), slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("url", d.scrub.text(urlString(req.URL))),
		slog.Int("attempt", attempt),
		slog.Duration("duration", time.Since(start)),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", d.scrub.text(err.Error())))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	d.logger.LogAttrs(req.Context(), slog.LevelDebug, "tensorpool: request", attrs...)
}

// logRetry logs, at info level, that a request is about to be sent again.
func (d *doer) logRetry(req *http.Request, attempt int, reason string, delay time.Duration) {
	if d.logger == nil {
		return
	}
	d.logger.LogAttrs(req.Context(), slog.LevelInfo, "tensorpool: retrying",
		slog.String("method", req.Method),
		slog.String("url", d.scrub.text(urlString(req.URL))),
		slog.Int("attempt", attempt),
		slog.String("reason", reason),
		slog.Duration("delay", delay),
	)
}
