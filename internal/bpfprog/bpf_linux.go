// SPDX-License-Identifier: Apache-2.0

package bpfprog

// The bpf(2) calls tc makes for the bpf filter and action: opening a
// pinned program and reading what the kernel knows of a loaded one (ELF
// objects are loaded by the ObjectLoader, bpf.go).

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// bpf(2) commands (linux/bpf.h).
const (
	bpfObjGet           = 7
	bpfProgGetFDByID    = 13
	bpfObjGetInfoByFD   = 15
	bpfProgInfoSize     = 136 // struct bpf_prog_info up to btf_id, which is all tc reads
	bpfProgInfoNameSize = 16
)

// bpfCall is bpf(cmd, attr, len(attr)).
func bpfCall(cmd int, attr []byte) (int, error) {
	r, _, errno := unix.Syscall(unix.SYS_BPF, uintptr(cmd), uintptr(unsafe.Pointer(&attr[0])), uintptr(len(attr)))
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// bpfObjPinned opens the program pinned at path (BPF_OBJ_GET).
func bpfObjPinned(path string) (int, error) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	attr := make([]byte, 16)
	binary.NativeEndian.PutUint64(attr, uint64(uintptr(unsafe.Pointer(p))))
	fd, err := bpfCall(bpfObjGet, attr)
	runtime.KeepAlive(p)
	return fd, err
}

// bpfProgInfoByID reads struct bpf_prog_info of the program with this id,
// as bpf_dump_prog_info does; ok is false when the program cannot be
// opened or read (tc then prints the tag the kernel dumped).
func bpfProgInfoByID(id uint32) (info bpfProgInfo, ok bool) {
	attr := make([]byte, 16)
	binary.NativeEndian.PutUint32(attr, id)
	fd, err := bpfCall(bpfProgGetFDByID, attr)
	if err != nil {
		return info, false
	}
	defer unix.Close(fd)
	buf := make([]byte, bpfProgInfoSize)
	attr = make([]byte, 16)
	binary.NativeEndian.PutUint32(attr, uint32(fd))
	binary.NativeEndian.PutUint32(attr[4:], uint32(len(buf)))
	binary.NativeEndian.PutUint64(attr[8:], uint64(uintptr(unsafe.Pointer(&buf[0]))))
	_, err = bpfCall(bpfObjGetInfoByFD, attr)
	runtime.KeepAlive(buf)
	if err != nil || binary.NativeEndian.Uint32(attr[4:]) == 0 {
		return info, false
	}
	ne := binary.NativeEndian
	copy(info.tag[:], buf[8:16])
	info.jited = ne.Uint32(buf[16:]) != 0
	info.loadTime = ne.Uint64(buf[40:])
	info.uid = ne.Uint32(buf[48:])
	name := buf[64 : 64+bpfProgInfoNameSize]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	info.name = string(name)
	info.btfID = ne.Uint32(buf[128:])
	return info, true
}
