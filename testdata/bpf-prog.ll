target triple = "bpf"

@_license = global [4 x i8] c"GPL\00", section "license", align 1
@llvm.used = appending global [3 x i8*] [i8* getelementptr inbounds ([4 x i8], [4 x i8]* @_license, i32 0, i32 0), i8* bitcast (i32 (i8*)* @cls to i8*), i8* bitcast (i32 (i8*)* @act to i8*)], section "llvm.metadata"

define i32 @cls(i8* %skb) section "classifier" {
  ret i32 -1
}

define i32 @act(i8* %skb) section "action" {
  ret i32 0
}
