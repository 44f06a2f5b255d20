package redisstore

import (
	"fmt"
	"strconv"
	"time"
)

// timeOffset is added to Unix seconds so that times before 1970 stay
// positive in a time key.
const timeOffset = 100_000_000_000

// timeKey is t as 21 digits: Unix seconds plus timeOffset (12 digits),
// then nanoseconds (9). Equal width, so their string order is their time
// order (the expiry index sorts its members so), and exact to the
// nanosecond, which a sorted set score (a double) is not.
func timeKey(t time.Time) (string, error) {
	sec := t.Unix() + timeOffset
	if sec < 0 || sec >= 1_000_000_000_000 {
		return "", fmt.Errorf("time %v is out of the store's range (roughly 1200 BC to AD 30000)", t)
	}
	return fmt.Sprintf("%012d%09d", sec, t.Nanosecond()), nil
}

// fromTimeKey is the time of a time key, in UTC.
func fromTimeKey(k string) (time.Time, error) {
	if len(k) != 21 {
		return time.Time{}, fmt.Errorf("time key %q is not 21 digits", k)
	}
	sec, err1 := strconv.ParseInt(k[:12], 10, 64)
	nsec, err2 := strconv.ParseInt(k[12:], 10, 64)
	if err1 != nil || err2 != nil || sec < 0 || nsec < 0 {
		return time.Time{}, fmt.Errorf("time key %q is not 21 digits", k)
	}
	return time.Unix(sec-timeOffset, nsec).UTC(), nil
}
