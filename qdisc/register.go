package qdisc

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// The registries of qdisc and filter kinds. Each kind's file adds itself in
// its init function, so that adding a kind edits nothing else; a name
// registered twice fails at init instead of silently replacing the first
// kind (the option-less names in qfq.go must go once a real kind takes one).
var (
	kinds           = map[string]*Kind{}
	kindRegistrants = map[string]string{}

	filterKinds           = map[string]*FilterKind{}
	filterKindRegistrants = map[string]string{}
)

// Register adds a qdisc kind to the registry, for Lookup and Kinds. It fails
// when the name is empty, when a kind of that name is registered already
// (the error names both registrants), or when k.Stats is invalid.
//
// gotc's own kinds register in init; a program adding its own does the same.
// Registration is not safe while another goroutine looks kinds up.
func Register(k *Kind) error {
	return register(k, registrant(1))
}

// mustRegister is Register for the kinds' init functions: a duplicate name is
// a programming error, reported at start-up.
func mustRegister(k *Kind) {
	if err := register(k, registrant(1)); err != nil {
		panic(err)
	}
}

func register(k *Kind, by string) error {
	if k == nil || k.Name == "" {
		return fmt.Errorf("qdisc: registering a kind without a name (by %s)", by)
	}
	if first, dup := kindRegistrants[k.Name]; dup {
		return fmt.Errorf("qdisc: kind %q registered twice: by %s and by %s", k.Name, first, by)
	}
	if err := k.Stats.check(); err != nil {
		return fmt.Errorf("qdisc: kind %q (registered by %s): %w", k.Name, by, err)
	}
	kinds[k.Name] = k
	kindRegistrants[k.Name] = by
	return nil
}

// RegisterFilter adds a filter kind to the registry, for LookupFilter and
// FilterKinds, with Register's rules for names.
func RegisterFilter(k *FilterKind) error {
	return registerFilter(k, registrant(1))
}

// mustRegisterFilter is RegisterFilter for the filter kinds' init functions.
func mustRegisterFilter(k *FilterKind) {
	if err := registerFilter(k, registrant(1)); err != nil {
		panic(err)
	}
}

func registerFilter(k *FilterKind, by string) error {
	if k == nil || k.Name == "" {
		return fmt.Errorf("qdisc: registering a filter kind without a name (by %s)", by)
	}
	if first, dup := filterKindRegistrants[k.Name]; dup {
		return fmt.Errorf("qdisc: filter kind %q registered twice: by %s and by %s", k.Name, first, by)
	}
	filterKinds[k.Name] = k
	filterKindRegistrants[k.Name] = by
	return nil
}

// registrant names the caller of the function that calls it (skip 1; each
// further frame adds one), as "dir/file.go:line", so that a duplicate's
// message says where to look.
func registrant(skip int) string {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return "unknown caller"
	}
	// Keep "qdisc/qfq.go" of ".../gotc/qdisc/qfq.go".
	if i := strings.LastIndexByte(file, '/'); i > 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// Lookup returns what gotc knows of a qdisc kind, or nil.
func Lookup(name string) *Kind { return kinds[name] }

// Kinds returns every registered qdisc kind, sorted by name: for usage texts
// and for consumers of the kinds' statistics tables.
func Kinds() []*Kind {
	ks := make([]*Kind, 0, len(kinds))
	for _, k := range kinds {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b *Kind) int { return strings.Compare(a.Name, b.Name) })
	return ks
}

// LookupFilter returns what gotc knows of a filter kind, or nil.
func LookupFilter(name string) *FilterKind { return filterKinds[name] }

// FilterKinds returns every registered filter kind, sorted by name.
func FilterKinds() []*FilterKind {
	ks := make([]*FilterKind, 0, len(filterKinds))
	for _, k := range filterKinds {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b *FilterKind) int { return strings.Compare(a.Name, b.Name) })
	return ks
}
