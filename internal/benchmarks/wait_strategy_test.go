package benchmarks

// waitStrategies is package wait, once it is merged.
func waitStrategies() []strategy { return nil }

// scaleWaiters is package wait's WaitAll, once it is merged.
func scaleWaiters() []waitAller { return nil }
