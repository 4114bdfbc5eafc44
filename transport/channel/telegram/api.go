package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"atende/engine"
	"atende/transport/channel/cloud"
)

// DefaultAPIURL is where the Bot API lives.
const DefaultAPIURL = "https://api.telegram.org"

// client calls the Bot API with one bot's token. The token is part of every URL, so
// errors are scrubbed of URLs before anyone logs them.
type client struct {
	base  string // e.g. https://api.telegram.org
	token string
	http  *http.Client
}

// apiError is the Bot API's error answer:
// {"ok":false,"error_code":429,"description":"…","parameters":{"retry_after":n}}.
type apiError struct {
	Code        int    `json:"error_code"`
	Description string `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func (e *apiError) Error() string {
	if e.Parameters.RetryAfter > 0 {
		return fmt.Sprintf("telegram %d: %s (retry after %d s)", e.Code, e.Description, e.Parameters.RetryAfter)
	}
	return fmt.Sprintf("telegram %d: %s", e.Code, e.Description)
}

// outcomeUnknownError is a send that may have been accepted (cloud.OutcomeUnknownError):
// the Bot API takes no idempotency key, so it is not retried.
type outcomeUnknownError = cloud.OutcomeUnknownError

// errOutcomeUnknown is the code of a send whose outcome is unknown: the same as
// meta.ErrOutcomeUnknown. Not ERR_SENDING_WAPP_MSG, which errors.Is takes for
// engine.ErrChannelTemporary (the connection actor would retry).
const errOutcomeUnknown = engine.ErrChannelOutcomeUnknown

func isOutcomeUnknown(err error) bool { return cloud.IsOutcomeUnknown(err) }

// classify maps a Bot API failure: 429, 5xx and network failures before the request
// was written wrap engine.ErrChannelTemporary; a send whose outcome is unknown is
// ERR_CHANNEL_OUTCOME_UNKNOWN, not retried; 401/404 on the bot (revoked token) is
// ERR_CHANNEL_CREDENTIALS; an unknown chat ERR_WAPP_INVALID_CONTACT; any other
// refusal (blocked by the user, bad request) ERR_CHANNEL_REFUSED.
func classify(what string, err error) error {
	if err == nil {
		return nil
	}
	if isOutcomeUnknown(err) {
		return engine.Wrap(errOutcomeUnknown, fmt.Errorf("%s: %w", what, err))
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		return fmt.Errorf("%s: %w: %w", what, engine.ErrChannelTemporary, err)
	}
	switch {
	case ae.Code == http.StatusTooManyRequests || ae.Code >= 500:
		return fmt.Errorf("%s: %w: %w", what, engine.ErrChannelTemporary, err)
	case ae.Code == http.StatusUnauthorized || ae.Code == http.StatusNotFound:
		return engine.Wrap(engine.ErrChannelCredentials, fmt.Errorf("%s: %w", what, err))
	case ae.Code == http.StatusBadRequest && strings.Contains(strings.ToLower(ae.Description), "chat not found"):
		return engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("%s: %w", what, err))
	}
	return engine.Wrap(engine.ErrChannelRefused, fmt.Errorf("%s: %w", what, err))
}

// scrub removes the URL (which holds the token) from a transport error.
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s bot api: %w", ue.Op, ue.Err)
	}
	return err
}

const maxAnswer = 8 << 20

// call POSTs params as JSON to method and decodes "result" into out.
func (c *client) call(ctx context.Context, method string, params any, out any) error {
	return c.callJSON(ctx, method, params, out, false)
}

// send is call for a method that sends a message: a failure after the request was
// written in full is an *outcomeUnknownError (see classify).
func (c *client) send(ctx context.Context, method string, params any, out any) error {
	return c.callJSON(ctx, method, params, out, true)
}

func (c *client) callJSON(ctx context.Context, method string, params any, out any, send bool) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/bot"+c.token+"/"+method, bytes.NewReader(b))
	if err != nil {
		return scrub(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return c.do(req, out, send)
}

// upload POSTs a multipart request with one file: a message send (sendPhoto…), so a
// failure after the request was written is an *outcomeUnknownError.
func (c *client) upload(ctx context.Context, method string, fields map[string]string, fileField, fileName string, file io.Reader, out any) error {
	buf, ctype, err := cloud.Multipart(fields, multipart.FileContentDisposition(fileField, fileName), "", file, 50<<20)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/bot"+c.token+"/"+method, buf)
	if err != nil {
		return scrub(err)
	}
	req.Header.Set("Content-Type", ctype)
	return c.do(req, out, true)
}

// do runs req. With send, a failure after the request was written in full, a 2xx
// answer that cannot be read or decoded, and a gateway's 502/504 that is not the Bot
// API's JSON are *outcomeUnknownError.
func (c *client) do(req *http.Request, out any, send bool) error {
	var wrote cloud.Written
	if send {
		req = wrote.Trace(req)
	}
	unknown := func(err error) error {
		if send {
			return &outcomeUnknownError{Err: err}
		}
		return err
	}
	res, err := c.http.Do(req)
	if err != nil {
		if wrote.OK() {
			return unknown(scrub(err))
		}
		return scrub(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		if res.StatusCode/100 == 2 {
			return unknown(scrub(err))
		}
		return scrub(err)
	}
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		apiError
	}
	if err := json.Unmarshal(b, &env); err != nil {
		if res.StatusCode/100 != 2 {
			ae := &apiError{Code: res.StatusCode, Description: http.StatusText(res.StatusCode)}
			if cloud.GatewayUnknown(res.StatusCode, false) {
				return unknown(ae)
			}
			return ae
		}
		return unknown(fmt.Errorf("decode bot api answer: %w", err))
	}
	if !env.OK {
		e := env.apiError
		if e.Code == 0 {
			e.Code = res.StatusCode
		}
		return &e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return unknown(fmt.Errorf("decode bot api result: %w", err))
	}
	return nil
}

// download fetches a file by its file_path (from getFile), capped at limit.
func (c *client) download(ctx context.Context, filePath string, limit int64) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/file/bot"+c.token+"/"+strings.TrimLeft(filePath, "/"), nil)
	if err != nil {
		return nil, scrub(err)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, scrub(err)
	}
	if res.StatusCode/100 != 2 {
		res.Body.Close()
		return nil, &apiError{Code: res.StatusCode, Description: "download " + http.StatusText(res.StatusCode)}
	}
	return cloud.LimitBody(res.Body, limit), nil
}

// user is the Bot API's User.
type user struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

func (c *client) getMe(ctx context.Context) (user, error) {
	var u user
	err := c.call(ctx, "getMe", struct{}{}, &u)
	return u, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
