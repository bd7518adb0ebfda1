; The eBPF programs of the bpf filter's and action's tests: a classifier that
; returns TC_ACT_UNSPEC and an action that returns TC_ACT_OK, each in the
; section tc looks in by default. Built (LLVM 14) with
;   llc -march=bpfel -filetype=obj testdata/bpf-prog.ll -o testdata/bpf-prog.o
target triple = "bpf"

@_license = global [4 x i8] c"GPL\00", section "license", align 1
@llvm.used = appending global [3 x i8*] [i8* getelementptr inbounds ([4 x i8], [4 x i8]* @_license, i32 0, i32 0), i8* bitcast (i32 (i8*)* @cls to i8*), i8* bitcast (i32 (i8*)* @act to i8*)], section "llvm.metadata"

define i32 @cls(i8* %skb) section "classifier" {
  ret i32 -1
}

define i32 @act(i8* %skb) section "action" {
  ret i32 0
}
