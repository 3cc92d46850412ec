// Package storetest has helpers for tests that use a store.
package storetest
