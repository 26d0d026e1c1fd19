//! Named conformance checks every AbstractMemory store, journal and graph connector
//! must pass, grouped by contract (`stores`, `vectors`, `journal`) and selected by
//! declared capabilities.
