"""Fakes of the ports and the one harness tests and benches build a table with."""
