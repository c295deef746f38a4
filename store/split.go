package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode"
)

// MaxInputBytes bounds all the bytes one read takes in: every file and stdin of one ReadPaths
// call, or one DecodeManifests stream. It is not a flag: 256 MiB is about 19 times the manifest of
// 10,000 Ingresses (13.6 MB) that dump is benchmarked on, far more than any cluster's objects
// of the kinds kongsync reads, and it stops /dev/zero or an endless pipe (which the per-document
// bound alone would read for ever, skipping document after document) in well under a second.
const MaxInputBytes = 256 << 20

// readLimits are the reader's bounds; tests shrink them.
type readLimits struct {
	doc   int   // bytes of one document (MaxDocumentBytes)
	total int64 // bytes of all input (MaxInputBytes)
}

func defaultReadLimits() readLimits {
	return readLimits{doc: MaxDocumentBytes, total: MaxInputBytes}
}

// budget is what is left of readLimits.total, shared by the files of one read.
type budget struct {
	left, limit int64
}

// errInputTooLarge ends a read whose input is over MaxInputBytes.
var errInputTooLarge = errors.New("input is over the limit")

// budgetReader charges every byte read from r to a budget, and fails once the budget is
// overdrawn: the bound holds while reading, whatever the source (a pipe, /dev/zero).
type budgetReader struct {
	r io.Reader
	b *budget
}

func (br budgetReader) Read(p []byte) (int, error) {
	if br.b.left < 0 {
		return 0, fmt.Errorf("%w of %d bytes for all manifests read at once; stopped", errInputTooLarge, br.b.limit)
	}
	if int64(len(p)) > br.b.left+1 {
		p = p[:br.b.left+1] // one byte past the limit tells "over" from "exactly at"
	}
	n, err := br.r.Read(p)
	br.b.left -= int64(n)
	return n, err
}

// rawDoc is one document of a stream: its bytes, or why it was skipped (a note's text).
type rawDoc struct {
	data []byte
	skip string
}

// splitter cuts a stream into documents as kubectl reads it (apimachinery's
// util/yaml.NewYAMLOrJSONDecoder), within readLimits while reading:
//   - a stream whose first non-space byte (within 4 KiB) is '{' is a JSON stream: each JSON
//     value is a document, one per line or concatenated; at the first byte that does not start
//     an object or array, the rest of the stream is read as YAML (kubectl switches the same way);
//   - YAML documents are separated by lines starting with "---" followed by nothing, spaces or
//     a comment. kubectl refuses a whole file at a line starting with "---" followed by anything
//     else; here only that document is skipped, with a note, up to the next separator. As in
//     kubectl's reader, a stream's leading separator stays on its first document, "\r\n"
//     becomes "\n", and every line ends with "\n".
//
// A document over the limit is dropped from memory as soon as it exceeds it, and skipped up to
// the next separator (or the end of the JSON value).
type splitter struct {
	r       *bufio.Reader
	lim     readLimits
	json    bool
	started bool
	scratch []byte // a line longer than the reader's buffer
	badSep  string // an invalid separator ended the last document: the next one is skipped
}

// jsonSniff is how far kubectl looks for the '{' of a JSON stream (kubectl's bufferSize).
const jsonSniff = 4096

func newSplitter(r io.Reader, lim readLimits, b *budget) *splitter {
	return &splitter{r: bufio.NewReaderSize(budgetReader{r, b}, 64<<10), lim: lim}
}

// next returns the next document, io.EOF at the end, or the error that stopped the read.
func (s *splitter) next() (rawDoc, error) {
	if !s.started {
		s.started = true
		head, _ := s.r.Peek(jsonSniff)
		s.json = bytes.HasPrefix(bytes.TrimLeftFunc(head, unicode.IsSpace), []byte("{"))
	}
	if s.json {
		return s.nextJSON()
	}
	return s.nextYAML()
}

func (s *splitter) nextYAML() (rawDoc, error) {
	var doc []byte
	size := 0
	reason := s.badSep
	s.badSep = ""
	for {
		line, n, err := s.readLine()
		if errors.Is(err, io.EOF) {
			if size > 0 || reason != "" {
				return s.finish(doc, size, reason), nil
			}
			return rawDoc{}, io.EOF
		}
		if err != nil {
			return rawDoc{}, err
		}
		if bytes.HasPrefix(line, []byte("---")) {
			rest := bytes.TrimSpace(line[3:])
			valid := len(rest) == 0 || rest[0] == '#'
			var bad string
			if !valid {
				bad = "invalid document separator " + quoteShort(string(line)) +
					" (kubectl refuses the whole file); skipped up to the next ---"
			}
			if size > 0 || reason != "" {
				s.badSep = bad
				return s.finish(doc, size, reason), nil
			}
			if !valid {
				reason = bad
			}
		}
		size += n + 1
		switch {
		case reason == "" && size <= s.lim.doc:
			doc = append(append(doc, line...), '\n')
		case doc != nil:
			doc = nil // over the limit: let the bytes go now, count the rest
		}
	}
}

func (s *splitter) finish(doc []byte, size int, reason string) rawDoc {
	switch {
	case reason != "":
		return rawDoc{skip: reason}
	case size > s.lim.doc:
		return rawDoc{skip: fmt.Sprintf("document is %d bytes, over the %d-byte limit; skipped", size, s.lim.doc)}
	}
	return rawDoc{data: doc}
}

// readLine returns the next line without its "\n" or "\r\n" (as bufio.Reader.ReadLine, which
// kubectl's line reader uses) and that line's length, keeping at most lim.doc+1 bytes of a long
// line: the rest is read and dropped (its length is then counted with its line end). The line
// is valid until the next read.
func (s *splitter) readLine() ([]byte, int, error) {
	chunk, err := s.r.ReadSlice('\n')
	if err == nil || (errors.Is(err, io.EOF) && len(chunk) > 0) {
		line := trimEOL(chunk)
		return line, len(line), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, 0, err
	}
	s.scratch = append(s.scratch[:0], chunk...)
	n := len(chunk)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = s.r.ReadSlice('\n')
		n += len(chunk)
		if room := s.lim.doc + 1 - len(s.scratch); room > 0 {
			s.scratch = append(s.scratch, chunk[:min(room, len(chunk))]...)
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	if len(s.scratch) < n {
		return s.scratch, n, nil
	}
	line := trimEOL(s.scratch)
	return line, len(line), nil
}

func trimEOL(line []byte) []byte {
	if l := len(line); l > 0 && line[l-1] == '\n' {
		line = line[:l-1]
		if l > 1 && line[l-2] == '\r' {
			line = line[:l-2]
		}
	}
	return line
}

// nextJSON returns the next JSON value of a JSON stream as a document, or, at anything that
// does not start an object or array, reads the rest of the stream as YAML.
func (s *splitter) nextJSON() (rawDoc, error) {
	c, err := s.skipJSONSpace()
	if err != nil {
		return rawDoc{}, err
	}
	if c != '{' && c != '[' {
		s.json = false
		return s.nextYAML()
	}
	var doc []byte
	var sc jsonScan
	size := 0
	for !sc.done {
		if _, err := s.r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				break // a truncated value: its decoding says so
			}
			return rawDoc{}, err
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		n := sc.scan(buf)
		if size += n; size <= s.lim.doc {
			doc = append(doc, buf[:n]...)
		} else {
			doc = nil
		}
		if _, err := s.r.Discard(n); err != nil {
			return rawDoc{}, err
		}
	}
	return s.finish(doc, size, ""), nil
}

// skipJSONSpace consumes JSON whitespace and returns the next byte, unread.
func (s *splitter) skipJSONSpace() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			if _, err := s.r.Discard(1); err != nil {
				return 0, err
			}
		default:
			return b[0], nil
		}
	}
}

// jsonScan finds where a JSON object or array ends, across chunks: it follows strings and
// brackets only (the decoder validates the value).
type jsonScan struct {
	depth    int
	inString bool
	escaped  bool
	done     bool
}

// scan consumes buf up to the end of the value (all of buf if it does not end there) and
// returns how many bytes it took.
func (sc *jsonScan) scan(buf []byte) int {
	for i, c := range buf {
		switch {
		case sc.escaped:
			sc.escaped = false
		case sc.inString:
			sc.escaped = c == '\\'
			sc.inString = c != '"'
		case c == '"':
			sc.inString = true
		case c == '{' || c == '[':
			sc.depth++
		case c == '}' || c == ']':
			if sc.depth--; sc.depth == 0 {
				sc.done = true
				return i + 1
			}
		}
	}
	return len(buf)
}
