// The header does the work; SwiftPM needs one C file to build the module.
