"""Streamlit glue for the dashboard: state, shared controls, cached computation, text."""
