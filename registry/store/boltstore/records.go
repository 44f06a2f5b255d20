package boltstore

import (
	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// call reads a call's record.
func (t *txn) call(id string) (store.Call, bool, error) {
	var c store.Call
	ok, err := getJSON(t.tx, bucketCalls, id, &c)
	return c, ok, err
}

// unsettledCalls reads the unsettled calls that keep accepts, oldest
// first.
func (t *txn) unsettledCalls(keep func(store.Call) bool) ([]store.Call, error) {
	return readUnsettled(t.tx, keep)
}

func readUnsettled(tx *bbolt.Tx, keep func(store.Call) bool) ([]store.Call, error) {
	calls := tx.Bucket(bucketCalls)
	var out []store.Call
	err := tx.Bucket(bucketUnsettled).ForEach(func(k, _ []byte) error {
		id := k[8:]
		var c store.Call
		if err := decode(bucketCalls, id, calls.Get(id), &c); err != nil {
			return err
		}
		if keep(c) {
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// insertCall writes a new call, accepted or published, and its indexes.
func (t *txn) insertCall(c store.Call) error {
	if err := t.putJSON(bucketCalls, c.ID, c); err != nil {
		return err
	}
	if err := t.put(bucketUnsettled, timeKey(c.AcceptedAt, c.ID), nil); err != nil {
		return err
	}
	if c.State == store.CallPublished {
		return t.put(bucketPublished, publishedKey(c.LeaseID, c.ID), nil)
	}
	return nil
}

// publish hands an accepted call to a lease.
func (t *txn) publish(c *store.Call, leaseID string) error {
	c.State = store.CallPublished
	c.LeaseID = leaseID
	c.PublishedAt = t.now
	if err := t.putJSON(bucketCalls, c.ID, c); err != nil {
		return err
	}
	return t.put(bucketPublished, publishedKey(leaseID, c.ID), nil)
}

// settle records an unsettled call's outcome st.Outcome: st.Result for
// OutcomeOK, st.Error, st.ErrorKind and st.ErrorRecovery otherwise (its
// call and lease ids are not read). The call moves from the unsettled
// index to the settled one and is listed in fx when fx is not nil.
func (t *txn) settle(c *store.Call, st store.Settlement, fx *store.Effects) error {
	if c.State == store.CallPublished {
		if err := t.del(bucketPublished, publishedKey(c.LeaseID, c.ID)); err != nil {
			return err
		}
	}
	if err := t.del(bucketUnsettled, timeKey(c.AcceptedAt, c.ID)); err != nil {
		return err
	}
	c.State = store.CallSettled
	c.Outcome = st.Outcome
	c.Result, c.Error, c.ErrorKind, c.ErrorRecovery = nil, "", "", ""
	if st.Outcome == store.OutcomeOK {
		c.Result = st.Result
	} else {
		c.Error, c.ErrorKind, c.ErrorRecovery = st.Error, st.ErrorKind, st.ErrorRecovery
	}
	c.SettledAt = t.now
	if err := t.putJSON(bucketCalls, c.ID, c); err != nil {
		return err
	}
	if err := t.put(bucketSettled, timeKey(c.SettledAt, c.ID), nil); err != nil {
		return err
	}
	if fx != nil {
		fx.Settled = append(fx.Settled, *c)
	}
	return nil
}
