"""One layer for real compiler output, below lint and plan: the TTGIR reader (``ttgir``), LLVM
IR through llvmlite (``llir``), and the findings type with its text/JSON/SARIF reporter
(``report``)."""
