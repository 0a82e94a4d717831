module profpack/bindings/go

go 1.19
