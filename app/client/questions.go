package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"lnk.dev/sandbox/app/apitype"
)

// Questions lists the questions waiting for the person.
func (c *Client) Questions(ctx context.Context) ([]apitype.Question, error) {
	var l []apitype.Question
	return l, c.do(ctx, http.MethodGet, apitype.PathQuestions, nil, &l)
}

// WatchQuestions calls fn with every waiting question and then every
// change until ctx ends or fn fails. With terminalFor, this process is
// the terminal of that sandbox: only its questions come, with codes.
func (c *Client) WatchQuestions(ctx context.Context, terminalFor string, fn func(*apitype.QuestionEvent) error) error {
	path := apitype.PathQuestionsWatch
	if terminalFor != "" {
		path += "?" + url.Values{"terminal": {terminalFor}}.Encode()
	}
	resp, err := c.send(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e apitype.QuestionEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("questions: bad line from the daemon: %w", err)
		}
		if e.Error != "" {
			return errors.New(e.Error)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("questions: the daemon closed the stream")
}

// Answer answers a waiting question.
func (c *Client) Answer(ctx context.Context, r *apitype.AnswerRequest) error {
	return c.do(ctx, http.MethodPost, apitype.PathAnswer, r, nil)
}

// Remembered lists the "always" answers.
func (c *Client) Remembered(ctx context.Context) ([]apitype.Remembered, error) {
	var l []apitype.Remembered
	return l, c.do(ctx, http.MethodGet, apitype.PathRemembered, nil, &l)
}

// Forget drops remembered answers and says how many.
func (c *Client) Forget(ctx context.Context, r *apitype.ForgetRequest) (int, error) {
	var resp apitype.ForgetResponse
	err := c.do(ctx, http.MethodPost, apitype.PathForget, r, &resp)
	return resp.Forgotten, err
}
