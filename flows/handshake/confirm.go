package handshake

import "errors"

// ErrNotConfirmed: the admin did not confirm a change (a deletion, a
// cordon, a drain); nothing was changed. Here so that every flows package
// refuses with the one error the front-ends test for.
var ErrNotConfirmed = errors.New("not confirmed: nothing changed")
