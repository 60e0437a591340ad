package ragstore

import "context"

// DriverSetup is implemented by stores whose RAGs need settings in
// driver_config (a server's address, a collection); such a plugin
// announces CapSetup. The kernel knows no driver: its .rag wizard (a RAG
// the kernel indexes) and .rag attach wizard (a RAG over an external
// collection) ask the questions Setup returns, and it checks every
// driver_config with ValidateConfig before it opens a store, so a user
// hears about a wrong setting from the driver that knows it.
//
// A store that needs no settings (one that keeps its data beside the RAG's
// file) need not implement it: the wizards then ask nothing, and any
// driver_config is passed to Open as it is.
type DriverSetup interface {
	// Setup returns the questions for a new RAG of the driver, in the
	// order they are asked.
	Setup(ctx context.Context, req *SetupRequest) (*SetupResponse, error)
	// ValidateConfig checks a driver_config: nil when it is usable, else an
	// error wrapping sdk.ErrInvalidArgument that names the key and says how
	// to fix it ("driver_config.host is missing: give the server's URL").
	// It checks the settings only; it does not reach a server.
	ValidateConfig(ctx context.Context, req *ValidateConfigRequest) error
}

// CapSetup: the store implements DriverSetup.
const CapSetup = "setup"

// SetupRequest asks for the questions that set up a RAG.
type SetupRequest struct {
	// Store is the new RAG's name (a default for a collection name, say).
	Store string
	// Attached asks for the questions of a RAG attached to an external
	// collection, rather than one the kernel indexes.
	Attached bool
}

// Kinds of questions.
const (
	// QuestionText takes a line of text, stored as given.
	QuestionText = "text"
	// QuestionSecret takes the name of a secret in the user's vault (the
	// kernel adds it there when it is missing); driver_config gets
	// "{{NAME}}", resolved only when the config reaches the plugin, so the
	// secret is never written in the RAG's file.
	QuestionSecret = "secret"
	// QuestionCollection takes one of the collections that
	// ListCollections lists for the answers so far (the store must
	// implement CollectionLister); the user picks it by number or name.
	QuestionCollection = "collection"
)

// Question is one setting a wizard asks for.
type Question struct {
	// Key is the driver_config key the answer goes to.
	Key string
	// Prompt is what the user is asked, without the default or a colon:
	// "Qdrant host".
	Prompt string
	// Default is the answer when the user just presses Enter.
	Default string
	// Kind is QuestionText (the zero value means it too), QuestionSecret
	// or QuestionCollection.
	Kind string
	// Required refuses an empty answer when there is no default.
	Required bool
}

// SetupResponse lists the questions of a driver.
type SetupResponse struct {
	Questions []Question
	// Note is shown once the RAG is set up: where its text is read from,
	// say. Optional.
	Note string
}

// ValidateConfigRequest holds a driver_config to check.
type ValidateConfigRequest struct {
	// Store is the RAG's name.
	Store string
	// DriverConfig is the RAG's driver_config, with {{SECRET}}s resolved.
	DriverConfig map[string]any
	// Attached is set for a RAG attached to an external collection.
	Attached bool
}
