package operations

import (
	"context"
	"net/url"

	"github.com/tensorpool/tensorpool-go/gen"
)

// Client implements gen.ClientInterface over one gen.Client; its methods
// are in operations.gen.go. Each method puts its operation in the call's
// context, where gen's doer and request editors find it. It has the check
// function accept each path argument as gen will send it, then calls gen.
type Client struct {
	gen   gen.Client
	check func(op *Operation, param int, text string) error
}

// NewClient returns a Client that sends through g. check gets each path
// argument, unescaped from the text gen sends; its error is the call's.
func NewClient(g gen.Client, check func(op *Operation, param int, text string) error) *Client {
	return &Client{gen: g, check: check}
}

// with returns ctx carrying operation i.
func (c *Client) with(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, key{}, &all[i])
}

// path checks path argument j of operation i, whose text is the value
// itself: a string, which gen escapes and nothing else.
func (c *Client) path(i, j int, text string) error { return c.check(&all[i], j, text) }

// styled checks path argument j of operation i, as gen's styling wrote it.
func (c *Client) styled(i, j int, escaped string) error {
	text, err := url.PathUnescape(escaped)
	if err != nil { // gen escapes what it writes: never
		return err
	}
	return c.check(&all[i], j, text)
}

// Gen returns a copy of the gen.Client that c sends through.
func (c *Client) Gen() gen.Client { return c.gen }
