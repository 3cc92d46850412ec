package mcpserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// CursorTTL is how long a cursor stays valid.
const CursorTTL = 15 * time.Minute

// A cursor is opaque to the agent: version, expiry, offset and a digest
// of the query it continues, authenticated with HMAC-SHA-256 under a key
// drawn when the server starts. It cannot be forged or edited, expires,
// and continues only the query it came from. (Pages are offsets: when the
// collection changes between calls, a page may repeat or miss documents.)

const cursorVersion = 1

func (s *Server) queryDigest(q value.Value) []byte {
	sum := sha256.Sum256(value.AppendJSON(nil, sortedKeys(q)))
	return sum[:8]
}

func (s *Server) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.cursorKey)
	m.Write(payload)
	return m.Sum(nil)[:16]
}

// newCursor returns a cursor that continues q at offset.
func (s *Server) newCursor(q value.Value, offset int64) string {
	p := []byte{cursorVersion}
	p = binary.BigEndian.AppendUint64(p, uint64(s.cfg.Now().Add(CursorTTL).Unix()))
	p = binary.BigEndian.AppendUint64(p, uint64(offset))
	p = append(p, s.queryDigest(q)...)
	return base64.RawURLEncoding.EncodeToString(append(p, s.mac(p)...))
}

// openCursor checks a cursor against the query it must continue and
// returns its offset.
func (s *Server) openCursor(token string, q value.Value) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != 1+8+8+8+16 || b[0] != cursorVersion || !hmac.Equal(s.mac(b[:25]), b[25:]) {
		return 0, errorf(CodeInvalidArgument, "invalid cursor: it was altered, or comes from another server run").
			withHint("repeat the query without cursor to start from the first page").withContext("argument", "cursor")
	}
	if exp := int64(binary.BigEndian.Uint64(b[1:9])); s.cfg.Now().Unix() > exp {
		return 0, errorf(CodeInvalidArgument, "cursor expired (cursors last %s)", CursorTTL).
			withHint("repeat the query without cursor to start from the first page").withContext("argument", "cursor")
	}
	if !hmac.Equal(b[17:25], s.queryDigest(q)) {
		return 0, errorf(CodeInvalidArgument, "cursor belongs to a different query").
			withHint("pass the cursor with exactly the arguments of the call that returned it, or drop it").withContext("argument", "cursor")
	}
	return int64(binary.BigEndian.Uint64(b[9:17])), nil
}
