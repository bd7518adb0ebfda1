package attrs

//go:generate go run ../codegen -spec ../specs/tc.yaml -out tc_gen.go
