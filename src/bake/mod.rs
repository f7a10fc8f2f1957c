//! Editor-time bake stages: document + heights → final cost field per movement type, then
//! nav/ builds sectors, portals, the portal graph, islands and flow permutations.
