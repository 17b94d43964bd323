package tensorpool

import (
	"log/slog"
	"net/http"
	"time"
)

// logAttempt logs one attempt at debug level.
func (d *doer) logAttempt(req *http.Request, attempt int, resp *http.Response, err error, start time.Time) {
	if d.logger == nil || !d.logger.Enabled(req.Context(), slog.LevelDebug) {
		return
	}
	var outcome slog.Attr
	if err != nil {
		outcome = slog.String("error", d.redact.text(err.Error()))
	} else {
		outcome = slog.Int("status", resp.StatusCode)
	}
	d.log(req, slog.LevelDebug, "tensorpool: request", attempt, slog.Duration("duration", time.Since(start)), outcome)
}

// log logs the request's method and URL (the key scrubbed), the attempt and
// attrs: never a header or a body.
func (d *doer) log(req *http.Request, level slog.Level, msg string, attempt int, attrs ...slog.Attr) {
	d.logger.LogAttrs(req.Context(), level, msg, append([]slog.Attr{slog.String("method", req.Method),
		slog.String("url", d.redact.text(urlString(req.URL))), slog.Int("attempt", attempt)}, attrs...)...)
}
