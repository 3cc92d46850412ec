package value

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// OID is a 12-byte MongoDB ObjectId: a 4-byte big-endian Unix time in
// seconds, 5 random bytes fixed per process, and a 3-byte counter that
// starts at a random value.
type OID [12]byte

var (
	oidProcess [5]byte
	oidCounter atomic.Uint32
	oidOnce    sync.Once
)

// oidInit draws the process's random bytes on the first ObjectId.
func oidInit() {
	var seed [4]byte
	if _, err := rand.Read(oidProcess[:]); err != nil {
		panic("query: no randomness for ObjectId: " + err.Error())
	}
	if _, err := rand.Read(seed[:]); err != nil {
		panic("query: no randomness for ObjectId: " + err.Error())
	}
	oidCounter.Store(binary.BigEndian.Uint32(seed[:]))
}

// NewOID returns a new ObjectId for the current time.
func NewOID() OID { return NewOIDAt(time.Now()) }

// NewOIDAt returns a new ObjectId whose time part is t.
func NewOIDAt(t time.Time) OID {
	oidOnce.Do(oidInit)
	var id OID
	binary.BigEndian.PutUint32(id[0:4], uint32(t.Unix()))
	copy(id[4:9], oidProcess[:])
	c := oidCounter.Add(1)
	id[9], id[10], id[11] = byte(c>>16), byte(c>>8), byte(c)
	return id
}

// ParseOID parses 24 hexadecimal digits.
func ParseOID(s string) (OID, bool) {
	var id OID
	if len(s) != 24 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}

// Hex returns the 24 lowercase hexadecimal digits of id.
func (id OID) Hex() string { return hex.EncodeToString(id[:]) }

// Time returns the time part of id.
func (id OID) Time() time.Time {
	return time.Unix(int64(binary.BigEndian.Uint32(id[0:4])), 0).UTC()
}

// ParseIDArg reads a document id typed by a person (a command-line
// argument, a tool argument): a bare 24-hex ObjectId, else a JSON value
// ("42", "\"ada\"", {"$oid":…}), else the text itself as a string, so
// that `ada` and `"ada"` name the same document.
func ParseIDArg(arg string) Value {
	if oid, ok := ParseOID(arg); ok {
		return ObjectIDValue(oid)
	}
	if v, err := ParseString(arg); err == nil {
		return v
	}
	return StringValue(arg)
}
