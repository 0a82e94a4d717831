# Symbols that share an address, as libraries define aliases: the names perf prints for them
# (tools/perf/util/symbol.c, choose_best_symbol) against those libdw's lookup gives.
# gcc -nostdlib -static -Wl,--build-id -o aliases aliases.S
        .text
        .globl  _start
        .type   _start, @function
_start:
        call    foo
        call    __bar
        call    baz
        jmp     _start
        .size   _start, .-_start

# Two global names of different sizes: perf keeps foo (fewer underscores) for all 41 bytes;
# libdw takes the smaller __foo for the first 16.
        .globl  __foo
        .type   __foo, @function
        .size   __foo, 16
        .globl  foo
        .type   foo, @function
        .size   foo, 41
        .p2align 4
__foo:
foo:
        .fill   40, 1, 0x90
        ret

# A weak name and a global one of one size: perf keeps the global __bar.
        .weak   bar
        .type   bar, @function
        .size   bar, 32
        .globl  __bar
        .type   __bar, @function
        .size   __bar, 32
        .p2align 4
bar:
__bar:
        .fill   31, 1, 0x90
        ret

# A label without a size and a function: perf keeps the function, baz.
        .globl  aaa_label
        .globl  baz
        .type   baz, @function
        .size   baz, 16
        .p2align 4
aaa_label:
baz:
        .fill   15, 1, 0x90
        ret
