//! Named conformance checks every AbstractMemory store, journal and graph connector
//! must pass, grouped by contract and selected by declared capabilities.
