"""What tests share that is not a fixture: builders, fakes and checks imported by test modules (no test module
imports another)."""
