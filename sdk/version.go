package sdk

// Version is the version of this SDK module. Plugins report it in Describe
// so that `coyote plugins` can show which SDK a plugin was built with.
const Version = "0.1.0"

// ProtocolVersion is the plugin protocol spoken by this SDK. It changes only
// for incompatible changes; additive changes are announced as capabilities.
const ProtocolVersion = 1
