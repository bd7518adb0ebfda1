// SPDX-License-Identifier: Apache-2.0

// Package filter holds gotc's filter kinds (classifiers), one file per kind
// (net/sched's cls_*, tc's f_*.c): each registers itself with package tckind
// and holds its keywords, handle, printing and the keywords that ask for a
// dumped filter again. Filters' actions are package action's, their extended
// matches package ematch's.
package filter
