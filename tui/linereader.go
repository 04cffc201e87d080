package tui

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
)

// lineReader hands the input out one line at a time. huh's accessible
// prompts each wrap their reader in a new bufio.Scanner, which would drop
// what it read ahead: Read returns at most one line. Reading stops at the
// end of the input or when ctx is cancelled (Ctrl-C), even mid-line.
type lineReader struct {
	ctx  context.Context
	src  *bufio.Reader
	reqs chan struct{}
	resp chan lineResult
	once sync.Once
	done sync.Once
	rest []byte // the part of the current line Read has not handed out
	last error  // the error that came with the last, unterminated line
	err  error  // sticky: io.EOF, or the context's error
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(ctx context.Context, r io.Reader) *lineReader {
	return &lineReader{ctx: ctx, src: bufio.NewReader(r), reqs: make(chan struct{}), resp: make(chan lineResult, 1)}
}

// loop reads a line when asked: nothing is read ahead of the questions (an
// exec credential plugin may want the terminal in between).
func (l *lineReader) loop() {
	for range l.reqs {
		line, err := l.src.ReadString('\n')
		l.resp <- lineResult{line: line, err: err}
		if err != nil {
			return
		}
	}
}

func (l *lineReader) fail(err error) (string, error) {
	l.err = err
	return "", err
}

// next returns the next line with its newline.
func (l *lineReader) next() (string, error) {
	switch {
	case l.err != nil:
		return "", l.err
	case l.last != nil:
		return l.fail(l.last)
	}
	l.once.Do(func() { go l.loop() })
	select {
	case l.reqs <- struct{}{}:
	case <-l.ctx.Done():
		return l.fail(l.ctx.Err())
	}
	select {
	case r := <-l.resp:
		if r.err != nil {
			if r.line == "" {
				return l.fail(r.err)
			}
			l.last = r.err
		}
		return r.line, nil
	case <-l.ctx.Done():
		return l.fail(l.ctx.Err())
	}
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.rest) == 0 {
		line, err := l.next()
		if err != nil {
			return 0, err
		}
		l.rest = []byte(line)
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// readLine returns the next line without its line ending.
func (l *lineReader) readLine() (string, error) {
	line := string(l.rest)
	l.rest = nil
	if line == "" {
		var err error
		if line, err = l.next(); err != nil {
			return "", err
		}
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func (l *lineReader) close() { l.done.Do(func() { close(l.reqs) }) }
