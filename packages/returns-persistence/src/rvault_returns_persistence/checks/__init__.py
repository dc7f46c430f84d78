"""The rules a worker return is checked against, one module per part of the contract.

``protocol`` says which rules a return of each version runs and in which
order; the modules beside it hold the current (v5) rules, ``legacy`` the
replay rules of the older versions (v1-v4) that differ from them, so no rule
asks which version it is judging.
"""
