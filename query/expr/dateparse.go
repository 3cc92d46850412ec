package expr

import (
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
)

// parseWithFormat is $dateFromString with a format: each specifier reads
// its field, other characters must match exactly.

// dateFields collects what a format read; -1 is "not given".
type dateFields struct {
	year, month, day, hour, minute, second, ms int
	yday, isoYear, isoWeek, isoDay             int
	offset                                     int // seconds east of UTC
	hasOffset                                  bool
}

func parseWithFormat(s, format string, loc *time.Location) (int64, error) {
	f := dateFields{year: -1, month: -1, day: -1, hour: 0, minute: 0, second: 0, ms: 0, yday: -1, isoYear: -1, isoWeek: -1, isoDay: -1}
	fail := func(why string) error {
		return errs.Errorf(errs.Invalid, "$dateFromString: error parsing date string '%s' with format '%s': %s", s, format, why)
	}
	pos := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || (i+1 < len(format) && format[i+1] == '%') {
			if format[i] == '%' {
				i++
			}
			if pos >= len(s) || s[pos] != format[i] {
				return 0, fail("the string does not match the format")
			}
			pos++
			continue
		}
		i++
		n, err := f.read(s[pos:], format[i])
		if err != "" {
			return 0, fail(err)
		}
		pos += n
	}
	if pos != len(s) {
		return 0, fail("trailing data")
	}
	if f.hasOffset && loc != nil {
		return 0, errs.Errorf(errs.Invalid, "$dateFromString: you cannot pass in a date/time string with time zone information ('%s') together with a second time zone argument", s)
	}
	t, why := f.time(loc)
	if why != "" {
		return 0, fail(why)
	}
	return t.UnixMilli(), nil
}

// read parses one specifier at the start of s, returning the bytes used.
func (f *dateFields) read(s string, spec byte) (int, string) {
	targets := map[byte]struct {
		dst      *int
		min, max int
	}{
		'Y': {&f.year, 4, 4}, 'G': {&f.isoYear, 4, 4}, 'm': {&f.month, 1, 2}, 'd': {&f.day, 1, 2},
		'H': {&f.hour, 1, 2}, 'M': {&f.minute, 1, 2}, 'S': {&f.second, 1, 2}, 'L': {&f.ms, 1, 3},
		'j': {&f.yday, 1, 3}, 'V': {&f.isoWeek, 1, 2}, 'u': {&f.isoDay, 1, 1}, 'U': {new(int), 1, 2},
		'w': {new(int), 1, 1},
	}
	if t, ok := targets[spec]; ok {
		n, used := readDigits(s, t.max)
		if used < t.min {
			return 0, "expected a number for %" + string(spec)
		}
		if spec == 'L' {
			for d := used; d < 3; d++ {
				n *= 10
			}
		}
		*t.dst = n
		return used, ""
	}
	switch spec {
	case 'z':
		return f.readOffset(s)
	case 'Z':
		return f.readMinutesOffset(s)
	case 'b', 'B':
		return f.readMonthName(s, spec == 'B')
	}
	return 0, "unsupported format character %" + string(spec)
}

func readDigits(s string, max int) (n, used int) {
	for used < len(s) && used < max && s[used] >= '0' && s[used] <= '9' {
		n = n*10 + int(s[used]-'0')
		used++
	}
	return n, used
}

func (f *dateFields) readOffset(s string) (int, string) {
	if strings.HasPrefix(s, "Z") {
		f.hasOffset = true
		return 1, ""
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, "expected a UTC offset for %z"
	}
	h, used := readDigits(s[1:], 2)
	if used != 2 {
		return 0, "expected a UTC offset for %z"
	}
	n := 1 + used
	m := 0
	if n < len(s) && s[n] == ':' {
		n++
	}
	if mm, u := readDigits(s[n:], 2); u == 2 {
		m, n = mm, n+2
	}
	f.offset, f.hasOffset = h*3600+m*60, true
	if s[0] == '-' {
		f.offset = -f.offset
	}
	return n, ""
}

func (f *dateFields) readMinutesOffset(s string) (int, string) {
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, "expected a minutes offset for %Z"
	}
	m, used := readDigits(s[1:], 4)
	if used == 0 {
		return 0, "expected a minutes offset for %Z"
	}
	f.offset, f.hasOffset = m*60, true
	if s[0] == '-' {
		f.offset = -f.offset
	}
	return 1 + used, ""
}

func (f *dateFields) readMonthName(s string, full bool) (int, string) {
	for m := time.January; m <= time.December; m++ {
		name := m.String()
		if !full {
			name = name[:3]
		}
		if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
			f.month = int(m)
			return len(name), ""
		}
	}
	return 0, "expected a month name"
}

// time builds the instant the fields describe.
func (f *dateFields) time(loc *time.Location) (time.Time, string) {
	if loc == nil {
		loc = time.UTC
	}
	if f.hasOffset {
		loc = time.FixedZone("", f.offset)
	}
	if f.hour > 23 || f.minute > 59 || f.second > 59 {
		return time.Time{}, "time out of range"
	}
	clock := time.Duration(f.hour)*time.Hour + time.Duration(f.minute)*time.Minute +
		time.Duration(f.second)*time.Second + time.Duration(f.ms)*time.Millisecond
	if f.isoYear >= 0 || f.isoWeek >= 0 || f.isoDay >= 0 {
		return f.isoDate(loc, clock)
	}
	year := f.year
	if year < 0 {
		year = 1970
	}
	if f.yday >= 0 {
		if f.yday < 1 || f.yday > 366 {
			return time.Time{}, "day of year out of range"
		}
		return time.Date(year, 1, f.yday, 0, 0, 0, 0, loc).Add(clock), ""
	}
	month, day := max(f.month, 1), max(f.day, 1)
	if f.month == 0 || f.day == 0 || month > 12 {
		return time.Time{}, "date out of range"
	}
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, loc)
	if t.Day() != day {
		return time.Time{}, "day out of range for the month"
	}
	return t.Add(clock), ""
}

func (f *dateFields) isoDate(loc *time.Location, clock time.Duration) (time.Time, string) {
	y, w, d := f.isoYear, max(f.isoWeek, 1), max(f.isoDay, 1)
	if y < 0 {
		y = 1970
	}
	if w > 53 || d > 7 {
		return time.Time{}, "ISO week date out of range"
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, loc)
	monday := jan4.AddDate(0, 0, -int(isoDayOfWeek(jan4)-1))
	return monday.AddDate(0, 0, (w-1)*7+d-1).Add(clock), ""
}
