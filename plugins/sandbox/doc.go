// Package main is coyote-sandbox. See package launcher for the backends;
// the contract is sdk/sandbox. The plugin imports only the SDK.
package main
