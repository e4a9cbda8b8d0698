"""The pages and the write API a person uses: views, forms, validation, the submission preview, throttles, URLs."""
